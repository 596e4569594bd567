/** Registers every built executor with the registry (imported once by the runtime). */
export {};
