import { Child, Fragment, Html, h } from './html';

/**
 * What a form shows again after a refusal: the values typed, and each field's problem in the
 * API's words (`must be 4 to 120 characters`), shown after the field's label; `_form` is a
 * problem of the whole form.
 */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
}

export const emptyForm = (values: Record<string, string> = {}): FormState => ({ values, errors: {} });

/**
 * A service's refusal (`title: must be 4 to 120 characters; body: …`, the API's words) as a
 * form's errors: each beside its field when the form has it, else above the form.
 */
export function refusalOf(message: string, fields: string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const part of message.split('; ')) {
    const colon = part.indexOf(': ');
    const field = colon > 0 ? part.slice(0, colon) : '';
    if (fields.includes(field)) errors[field] ??= part.slice(colon + 2);
    else errors._form = errors._form ? `${errors._form} ${part}` : part;
  }
  return errors;
}

/** The hidden token that binds a form to the visitor's session (checked by the page guard). */
export const CSRF_FIELD = '_csrf';

export function Token({ value }: { value: string }): Html {
  return <input type="hidden" name={CSRF_FIELD} value={value} />;
}

interface FieldProps {
  /** The form field's name, and the id of its control (prefixed with `form`). */
  name: string;
  label: string;
  form: FormState;
  /** The id prefix, when a page has two forms with a field of the same name. */
  form_id: string;
  hint?: string;
  children?: Child;
}

const ids = (p: Pick<FieldProps, 'name' | 'form_id'>) => ({
  control: `${p.form_id}-${p.name}`,
  hint: `${p.form_id}-${p.name}-hint`,
  error: `${p.form_id}-${p.name}-error`,
});

/** A label, its control (the children), a hint and the field's error, tied together for screen readers. */
function Field(props: FieldProps & { control: (a: { id: string; describedBy?: string; invalid?: 'true' }) => Html }): Html {
  const id = ids(props);
  const error = props.form.errors[props.name];
  const describedBy = [props.hint ? id.hint : null, error ? id.error : null].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id.control}>{props.label}</label>
      {props.control({ id: id.control, describedBy, invalid: error ? 'true' : undefined })}
      {props.hint ? (
        <span class="hint" id={id.hint}>
          {props.hint}
        </span>
      ) : null}
      {error ? (
        <span class="error" id={id.error}>
          {props.label} {error}
        </span>
      ) : null}
    </div>
  );
}

export function TextField(
  props: Omit<FieldProps, 'children'> & {
    type?: 'text' | 'email' | 'search' | 'url';
    required?: boolean;
    maxlength?: number;
    autocomplete?: string;
    inputmode?: 'numeric' | 'email' | 'text';
    class?: string;
  },
): Html {
  return (
    <Field
      {...props}
      control={(a) => (
        <input
          type={props.type ?? 'text'}
          id={a.id}
          name={props.name}
          value={props.form.values[props.name] ?? ''}
          required={props.required}
          maxlength={props.maxlength}
          autocomplete={props.autocomplete}
          inputmode={props.inputmode}
          class={props.class}
          aria-describedby={a.describedBy}
          aria-invalid={a.invalid}
        />
      )}
    />
  );
}

export function TextArea(props: Omit<FieldProps, 'children'> & { rows?: number; required?: boolean; maxlength?: number }): Html {
  return (
    <Field
      {...props}
      control={(a) => (
        <textarea
          id={a.id}
          name={props.name}
          rows={props.rows ?? 5}
          required={props.required}
          maxlength={props.maxlength}
          aria-describedby={a.describedBy}
          aria-invalid={a.invalid}
        >
          {props.form.values[props.name] ?? ''}
        </textarea>
      )}
    />
  );
}

export function Select(props: Omit<FieldProps, 'children'> & { options: { value: string; label: string }[] }): Html {
  const chosen = props.form.values[props.name];
  return (
    <Field
      {...props}
      control={(a) => (
        <select id={a.id} name={props.name} aria-describedby={a.describedBy} aria-invalid={a.invalid}>
          {props.options.map((o) => (
            <option value={o.value} selected={o.value === chosen}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

/** A refusal that belongs to no one field (a wrong code, a limit). */
export function FormAlert({ form }: { form: FormState }): Html {
  const message = form.errors._form;
  return message ? (
    <p class="alert alert-error" role="alert">
      {message}
    </p>
  ) : (
    <></>
  );
}
