import { IsDefined, IsString } from 'class-validator';
import { HasLength, IsEmailAddress, Trim } from '../../../common/validation';

/** The sign-in form of the public site: who is asking for a code, with the API's rules for an author. */
export class SignInDto {
  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @IsEmailAddress()
  email: string;

  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(1, 100)
  name: string;
}
