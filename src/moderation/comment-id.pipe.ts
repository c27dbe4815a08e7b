import { Injectable, PipeTransform } from '@nestjs/common';
import { AppError } from '../common/app-error';

/** A path id that is not a positive integer names no comment: 404, as for an unknown id. */
@Injectable()
export class CommentIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    const id = /^[1-9]\d{0,15}$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(id)) throw AppError.notFound('comment');
    return id;
  }
}
