export interface Q { a: string }
