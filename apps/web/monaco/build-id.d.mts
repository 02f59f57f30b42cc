/** Id of the Monaco bundle that monaco/build.mjs writes: the folder it is served from. */
export function monacoBuildId(): string;
/** URL path under which every Monaco bundle folder is served. */
export const MONACO_URL_PREFIX: string;
