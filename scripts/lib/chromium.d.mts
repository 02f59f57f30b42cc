export declare const CHROMIUM_PATH: string;
export declare function chromiumArgs(options?: { chromeUi?: boolean }): string[];
