import type { BookLadder } from './ladder.ts';

/**
 * Checks a ladder for states no real book can be in. Capture records each as a data-quality
 * event and keeps the book as the venue sent it: fixing it silently would hide the venue's error.
 */
export interface BookIssue {
  problem: 'crossed_book' | 'locked_book';
  detail: string;
}

export function checkLadder(ladder: BookLadder): BookIssue | null {
  const bid = ladder.bestBid();
  const ask = ladder.bestAsk();
  if (bid === null || ask === null || bid < ask) return null;
  return bid === ask
    ? { problem: 'locked_book', detail: `best bid equals best ask at ${bid}` }
    : { problem: 'crossed_book', detail: `best bid ${bid} above best ask ${ask}` };
}
