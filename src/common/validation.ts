import { applyDecorators, ArgumentMetadata, Injectable, PipeTransform, ValidationPipe } from '@nestjs/common';
import { plainToInstance, Transform } from 'class-transformer';
import { getMetadataStorage, IS_DEFINED, isEmail, validate, ValidateBy, ValidateIf, ValidationError, ValidationOptions } from 'class-validator';
import { AppError } from './app-error';
import { normalEmail } from './email-address';
import { valueProblem } from './http-middleware';

/** Length in Unicode code points, which is what the spec's limits count. */
export const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

/** Trims strings before validation; leaves other types for the type check to refuse. */
export const Trim = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

/** A string whose length in code points lies in [min, max]. */
export function HasLength(min: number, max: number, options?: ValidationOptions) {
  const problem =
    min === 0 ? `must be at most ${max} characters` : `must be ${min} to ${max} characters`;
  return ValidateBy(
    {
      name: 'hasLength',
      validator: {
        validate: (value) =>
          typeof value === 'string' && codePoints(value) >= min && codePoints(value) <= max,
        // Validators run bottom-up: this one sees a number before the type check does.
        defaultMessage: (args) => (typeof args?.value === 'string' ? problem : 'must be a string'),
      },
    },
    options,
  );
}

/**
 * An email address: one with a normal form (common/email-address.ts), the form in which it is
 * then compared, stored and sent to, and that form written as an address (class-validator's
 * isEmail, which wants a dot in the domain).
 */
export function IsEmailAddress(options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'isEmailAddress',
      validator: {
        validate: (value) => {
          const normal = typeof value === 'string' ? normalEmail(value) : null;
          return normal !== null && isEmail(normal);
        },
        defaultMessage: () => 'must be a valid email address',
      },
    },
    options,
  );
}

/**
 * A field that may be omitted but not sent as null: no documented input type is nullable, so
 * `{"category": null}` is refused naming the type instead of being taken for "omitted".
 */
export function Optional(type: string) {
  return applyDecorators(
    ValidateIf((_object, value) => value !== undefined),
    // An IS_DEFINED check runs before every other check of the field, so null is named as such.
    ValidateBy({
      name: IS_DEFINED,
      validator: { validate: (value) => value !== null, defaultMessage: () => `must be ${type}, not null` },
    }),
  );
}

/** A query value that is a whole number in [min, max], written in plain digits. */
export function IsIntegerString(min: number, max: number, options?: ValidationOptions) {
  const problem =
    max === Number.MAX_SAFE_INTEGER
      ? `must be an integer of ${min} or more`
      : `must be an integer from ${min} to ${max}`;
  return ValidateBy(
    {
      name: 'isIntegerString',
      validator: {
        validate: (value) =>
          typeof value === 'string' &&
          /^\d{1,16}$/.test(value) &&
          Number(value) >= min &&
          Number(value) <= max,
        defaultMessage: () => problem,
      },
    },
    options,
  );
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** An ISO 8601 date and time with a zone, naming a day that exists (JavaScript's Date would roll 02-31 over to March). */
export function isTimestamp(value: unknown): value is string {
  const m = typeof value === 'string' ? TIMESTAMP.exec(value) : null;
  if (!m) return false;
  const [year, month, day, hour, minute, second = 0, zoneHours = 0, zoneMinutes = 0] = m.slice(1).map((part) => Number(part ?? 0));
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour < 24 && minute < 60 && second < 60 &&
    zoneHours < 24 && zoneMinutes < 60 && !Number.isNaN(Date.parse(value as string))
  );
}

export function IsTimestamp(options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'isTimestamp',
      validator: {
        validate: isTimestamp,
        defaultMessage: () => 'must be an ISO 8601 date and time with a time zone, such as 2026-11-21T14:00:00Z',
      },
    },
    options,
  );
}

/** One problem per field: documented fields first, then unknown ones. */
function validationProblems(errors: ValidationError[]): { path: string; problem: string }[] {
  const problems: { path: string; problem: string; unknown: boolean }[] = [];
  const walk = (error: ValidationError, parent: string) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const constraints = error.constraints ?? {};
    if (constraints.whitelistValidation) {
      problems.push({ path, problem: 'is not allowed', unknown: true });
    } else {
      const first = Object.values(constraints)[0];
      if (first) problems.push({ path, problem: first, unknown: false });
    }
    for (const child of error.children ?? []) walk(child, path);
  };
  for (const error of errors) walk(error, '');
  return problems.sort((a, b) => Number(a.unknown) - Number(b.unknown));
}

/** One problem per field, as `<path>: <problem>`: documented fields first, then unknown ones. */
export function validationMessage(errors: ValidationError[]): string {
  return validationProblems(errors)
    .map((p) => `${p.path}: ${p.problem}`)
    .join('; ');
}

/**
 * A page's form checked with an API request's class and rules, each problem kept beside its
 * field (`{ title: 'must be 4 to 120 characters' }`): the words the API would answer with.
 * Only the class's own fields are read; the rest of the form (its token, say) is not its business.
 */
export async function validateForm<T extends object>(
  Dto: new () => T,
  form: Record<string, unknown>,
  fields: (keyof T & string)[],
): Promise<{ value: T } | { errors: Record<string, string> }> {
  const errors: Record<string, string> = {};
  const kept: Record<string, unknown> = {};
  for (const field of fields) {
    if (form[field] === undefined || form[field] === '') continue;
    const problem = valueProblem(form[field], field);
    if (problem) errors[field] = problem.message.slice(field.length + 2);
    else kept[field] = form[field];
  }
  const value = plainToInstance(Dto, kept);
  const problems = await validate(value, { whitelist: true, stopAtFirstError: true, validationError: { target: false, value: false } });
  for (const { path, problem } of validationProblems(problems)) errors[path] ??= problem;
  return Object.keys(errors).length > 0 ? { errors } : { value };
}

const exceptionFactory = (errors: ValidationError[]) =>
  new AppError('invalid_request', validationMessage(errors));

/** For JSON bodies: unknown fields are refused. */
export const BodyValidation = new ValidationPipe({
  transform: true,
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
  exceptionFactory,
});

/** How many distinct queries each query class remembers the outcome of, and up to what length. */
const QUERY_OUTCOMES = 1_000;
const QUERY_OUTCOME_KEY_LENGTH = 512;

/**
 * For query strings: unknown parameters are ignored whatever their names (`?constructor=1`,
 * `?foo=%00`). Only the parameters the route reads are kept, and only they must be free of NUL
 * characters, lone surrogates and prototype keys.
 *
 * The outcome depends on nothing but the kept parameters and the class's decorators, and the
 * same few queries come again and again (a page of a list, polled). So each class remembers
 * the outcome of the last 1,000 distinct queries it saw, of up to 512 characters: the values
 * they validated to, or the message they were refused with. class-validator builds an error
 * object for every property of the class on every call, even when none fails.
 */
@Injectable()
class QueryValidationPipe implements PipeTransform {
  private readonly validation = new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: false,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory,
  });

  private readonly classes = new Map<unknown, { reads: Set<string>; outcomes: Map<string, QueryOutcome> }>();

  async transform(query: Record<string, unknown>, metadata: ArgumentMetadata): Promise<unknown> {
    const { reads, outcomes } = this.of(metadata.metatype);
    const kept: Record<string, unknown> = {};
    for (const name in query) if (reads.has(name) && Object.hasOwn(query, name)) kept[name] = query[name];
    const key = JSON.stringify(kept);
    let outcome = outcomes.get(key);
    if (!outcome) {
      outcome = await this.validate(kept, metadata);
      if (key.length <= QUERY_OUTCOME_KEY_LENGTH) {
        if (outcomes.size >= QUERY_OUTCOMES) outcomes.delete(outcomes.keys().next().value!);
        outcomes.set(key, outcome);
      }
    }
    if ('refused' in outcome) throw new AppError('invalid_request', outcome.refused);
    const Metatype = metadata.metatype as new () => object;
    return Object.assign(new Metatype(), outcome.values);
  }

  private async validate(kept: Record<string, unknown>, metadata: ArgumentMetadata): Promise<QueryOutcome> {
    try {
      const problem = valueProblem(kept, 'body');
      if (problem) throw problem;
      return { values: { ...((await this.validation.transform(kept, metadata)) as object) } };
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_request') return { refused: error.message };
      throw error;
    }
  }

  private of(metatype: ArgumentMetadata['metatype']) {
    let known = this.classes.get(metatype);
    if (!known) {
      const metadatas = metatype ? getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false) : [];
      known = { reads: new Set(metadatas.map((m) => m.propertyName)), outcomes: new Map() };
      this.classes.set(metatype, known);
    }
    return known;
  }
}

type QueryOutcome = { values: object } | { refused: string };

export const QueryValidation = new QueryValidationPipe();

/**
 * For a page's GET form: a field left empty (the "Any status" choice, an empty search) is not
 * there at all; the rest is checked as the API checks its query.
 */
export const FormQueryValidation: PipeTransform = {
  transform(query: Record<string, unknown>, metadata: ArgumentMetadata) {
    const given = Object.fromEntries(Object.entries(query ?? {}).filter(([, value]) => value !== ''));
    return QueryValidation.transform(given, metadata);
  },
};

/** For routes that take no fields (a body stays optional): every field sent is refused. */
export const NoFields: PipeTransform = {
  transform(body: Record<string, unknown>) {
    const fields = Object.keys(body ?? {});
    if (fields.length > 0) throw new AppError('invalid_request', fields.map((f) => `${f}: is not allowed`).join('; '));
    return body;
  },
};
