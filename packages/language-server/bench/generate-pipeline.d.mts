/** A generated pipeline of `count` LLM stages between start and exit (about 1.4 MB at 10,000 stages). */
export function generatePipeline(count: number): string;
