export const EVENT_TYPES = ['post.created', 'post.status_changed', 'comment.created', 'post.voted', 'changelog.published', 'post.pending', 'comment.pending'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
