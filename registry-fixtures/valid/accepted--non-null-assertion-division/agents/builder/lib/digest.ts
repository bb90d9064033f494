export function digestLabel(name: string, sha: string): string {
  return `${name}: sha256:${sha}`;
}
