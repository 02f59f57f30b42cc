/** How much of each part runs: `npm test` runs a bounded subset, `npm run chaos` the full campaign. */
export interface ChaosScale {
  sessions: number;
  callsPerSession: number;
  cycles: number;
  fuzzCases: number;
  /** Bytes printed to a slow socket reader (0 skips the part). */
  slowReaderBytes: number;
  /** Stop and restart a private dockerd under a live session (private-dockerd.ts). */
  dockerd: boolean;
}

export const SHORT_SCALE: ChaosScale = {
  sessions: 5,
  callsPerSession: 20,
  cycles: 10,
  fuzzCases: 300,
  slowReaderBytes: 0,
  dockerd: false,
};
export const FULL_SCALE: ChaosScale = {
  sessions: 20,
  callsPerSession: 50,
  cycles: 100,
  fuzzCases: 3000,
  slowReaderBytes: 100 * 1024 * 1024,
  dockerd: true,
};

/** One line of the table: a figure, its value, and whether it is what the campaign promises. */
export interface ChaosFigure {
  part: string;
  figure: string;
  value: string;
  ok: boolean;
}
