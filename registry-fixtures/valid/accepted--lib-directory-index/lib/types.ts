export interface Options {
  bullet?: string;
}
// Loaded at runtime by format.ts's callers through the default bullet.
export const DEFAULT_BULLET = "-";
