import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from './app-config';

/** The title slug of a post URL: lower-case ASCII letters and digits joined by single dashes. */
export function titleSlug(title: string): string {
  return title
    .replace(/[^A-Za-z0-9]+/g, '-')
    .toLowerCase()
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
}

/** Public and dashboard addresses of boards and posts. */
@Injectable()
export class Links {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  board(workspaceSlug: string, boardSlug: string): string {
    return `${this.config.publicBaseUrl}/${workspaceSlug}/${boardSlug}`;
  }

  post(workspaceSlug: string, boardSlug: string, id: number, title: string): string {
    const slug = titleSlug(title);
    return `${this.board(workspaceSlug, boardSlug)}/p/${slug ? `${id}-${slug}` : id}`;
  }

  postAdmin(id: number): string {
    return `${this.config.baseUrl}/admin/p/${id}`;
  }
}
