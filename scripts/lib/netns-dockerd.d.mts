export interface NetnsDockerdOptions {
  netns?: string;
  hostAddress?: string;
  address?: string;
  port?: number;
  dir?: string;
}
export declare const NETNS_DOCKERD: Required<NetnsDockerdOptions>;
export declare function ensureDockerTls(certDir: string, address: string): void;
export declare function dockerCliArgs(options: Required<Pick<NetnsDockerdOptions, "address" | "port" | "dir">>): string[];
export declare function startNetnsDockerd(
  options?: NetnsDockerdOptions,
): Promise<{ url: string; certDir: string; netns: string; address: string; port: number; dir: string }>;
export declare function loadImageInto(options: NetnsDockerdOptions, image: string): boolean;
export declare function stopNetnsDockerd(options?: NetnsDockerdOptions): Promise<void>;
export declare function removeNetns(options?: NetnsDockerdOptions): void;
