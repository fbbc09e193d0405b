// The TypeScript SDK's dist/ imports its own modules without file extensions ("./apis"), which Node's ESM
// loader refuses; this hook tries "<specifier>.js" and "<specifier>/index.js" for relative imports that fail.
import { register } from "node:module";

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith("./") || specifier.startsWith("../");
    const missing = error?.code === "ERR_MODULE_NOT_FOUND" || error?.code === "ERR_UNSUPPORTED_DIR_IMPORT";
    if (!relative || !missing) throw error;
    for (const candidate of [`${specifier}.js`, `${specifier}/index.js`]) {
      try {
        return await nextResolve(candidate, context);
      } catch {
        // try the next spelling
      }
    }
    throw error;
  }
}

// Loaded with --import: registers this file as the resolve hook of the modules loaded after it.
if (!import.meta.url.includes("?hook")) register(`${import.meta.url}?hook`);
