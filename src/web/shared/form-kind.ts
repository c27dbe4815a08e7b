import { SetMetadata } from '@nestjs/common';

export const FORM_KIND = 'chorus:form-kind';

/**
 * What a page's form token is bound to: by default the session (a form for someone signed in);
 * `sign-in` for the forms that lead to a session (bound to the sign-in's own cookie). Every POST
 * of a page passes the check of its area's guard.
 */
export type FormKind = 'session' | 'sign-in';

export const SignInForm = () => SetMetadata(FORM_KIND, 'sign-in' satisfies FormKind);
