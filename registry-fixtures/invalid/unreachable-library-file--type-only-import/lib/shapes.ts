export interface Shape { kind: string }
