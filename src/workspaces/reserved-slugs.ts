/**
 * The first path segments the service answers at its root, other than a workspace's public
 * site (`/<workspace>/…`). A workspace slug may be none of them (nor hold a dot, which the slug
 * pattern already refuses). A test walks the application's routes and fails if one begins with
 * a segment missing here.
 */
export const RESERVED_ROOT_SEGMENTS = ['admin', 'api', 'assets', 'docs', 'email', 'embed', 'healthz', 'metrics', 'readyz'] as const;

/** Segments under `/<workspace>/` that are the site's own pages, so no board may take them as its slug. */
export const RESERVED_BOARD_SLUGS = ['roadmap', 'changelog', 'sign-in', 'sign-out', 'sso'] as const;

const reservedRoots = new Set<string>(RESERVED_ROOT_SEGMENTS);
const reservedBoards = new Set<string>(RESERVED_BOARD_SLUGS);

export const isReservedWorkspaceSlug = (slug: string) => reservedRoots.has(slug);
export const isReservedBoardSlug = (slug: string) => reservedBoards.has(slug);
