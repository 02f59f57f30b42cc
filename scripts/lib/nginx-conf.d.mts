export interface NginxConfOptions {
  /** Where nginx listens, on 127.0.0.1. */
  port: number;
  /** `127.0.0.1:<port>` of each runner. */
  runners: string[];
  /** `127.0.0.1:<port>` of the web app. */
  web: string;
  /** nginx's prefix: its pid, logs and temp files. */
  dir: string;
}
export declare function nginxBinary(): string | null;
export declare function nginxConf(options: NginxConfOptions): string;
export declare function writeNginxConf(options: NginxConfOptions): string;
export declare function nginxCommand(dir: string, file: string): [string, string[]];
export declare function ensureNginx(options: {
  aptInstall: (packages: string[]) => Promise<unknown>;
  isRoot: boolean;
  isDebian: boolean;
  step: <T>(label: string, fn: () => T | Promise<T>) => Promise<T>;
}): Promise<void>;
