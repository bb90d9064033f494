export function label(name: string, sha: string): string {
  return `${name}: sha256:${sha}`;
}
