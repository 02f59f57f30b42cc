const BY_EXTENSION: Readonly<Record<string, string>> = {
  ts: "TypeScript",
  tsx: "TypeScript",
  mts: "TypeScript",
  cts: "TypeScript",
  js: "JavaScript",
  jsx: "JavaScript",
  mjs: "JavaScript",
  cjs: "JavaScript",
  py: "Python",
  pyi: "Python",
  go: "Go",
  rs: "Rust",
  java: "Java",
  kt: "Kotlin",
  rb: "Ruby",
  php: "PHP",
  c: "C",
  h: "C",
  cc: "C++",
  cpp: "C++",
  hpp: "C++",
  cs: "C#",
  swift: "Swift",
  r: "R",
  jl: "Julia",
  pl: "Perl",
  sh: "Shell",
  bash: "Shell",
  json: "JSON",
  yaml: "YAML",
  yml: "YAML",
  toml: "TOML",
  md: "Markdown",
  html: "HTML",
  css: "CSS",
  scss: "CSS",
  sql: "SQL",
};

/** The language a file's extension names, or undefined for files no language claims. */
export function languageOf(fileName: string): string | undefined {
  const dot = fileName.lastIndexOf(".");
  if (dot <= 0) return undefined;
  return BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()];
}
