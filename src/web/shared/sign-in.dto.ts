import { IsDefined, IsString } from 'class-validator';
import { HasLength, IsEmailAddress, Trim } from '../../common/validation';

/** The address a sign-in email goes to: the dashboard's sign-in form. */
export class SignInEmailDto {
  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @IsEmailAddress()
  email: string;
}

/**
 * Someone by address and name, with the API's rules for an author: the public site's sign-in
 * form, and a new member of the dashboard.
 */
export class SignInDto extends SignInEmailDto {
  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(1, 100)
  name: string;
}
