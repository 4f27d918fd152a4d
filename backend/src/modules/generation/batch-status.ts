/** A bulk batch entry's title while it runs (the spec's 'STATUS: ...' line). */
export const batchStatus = (name: string, done: number, total: number) =>
  `STATUS: ${name}: ${done} of ${total} done`;
