import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'chorus:public';
/** A route outside the API that needs no key (health, documentation). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
