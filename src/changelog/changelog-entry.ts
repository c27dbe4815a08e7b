export const ENTRY_TYPES = ['new', 'improved', 'fixed'] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

export const ENTRY_STATES = ['draft', 'scheduled', 'published'] as const;
export type EntryState = (typeof ENTRY_STATES)[number];

/** The type as the pages say it. */
export const TYPE_WORDS: Record<EntryType, string> = { new: 'New', improved: 'Improved', fixed: 'Fixed' };
export const CHANGELOG_PUBLISHED = 'changelog.published' as const;
