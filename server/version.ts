/** The service's version (the ready line, `/api/v1/info`, `cueport --version`). */
export const VERSION = "0.1.0";
