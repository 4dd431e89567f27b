export interface BashCase { name: string; script: string; stdin?: string; files?: Record<string, string> }
export const BASH_CASES: BashCase[] = [];
