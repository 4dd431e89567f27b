/** The engine id the edits of just-bash-edits.mjs produce (see patches/README.md). */
export declare const engineId: string;
