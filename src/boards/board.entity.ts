
/** A row of `boards`, as its store reads it. */
export interface BoardEntity {
  workspaceId: string;
  id: string;
  slug: string;
  name: string;
  description: string | null;
  public: boolean;
  notifyVoters: boolean;
  createdAt: Date;
}
