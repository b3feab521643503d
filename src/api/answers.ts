/**
 * Every REST answer of the venue this process received, counted at the wire by status class: the
 * 429s and 5xx of every component (capture's catalogue reads and re-seeds, the sync jobs), whether
 * or not the caller that got it counts it itself. The pipeline's `/metrics` exports it
 * (`tapehouse_venue_answers_total`), so the first refused read is a sample, not a silence.
 */
export const ANSWER_CLASSES = ['429', '5xx'] as const;
export type AnswerClass = (typeof ANSWER_CLASSES)[number];

const answers: Record<AnswerClass, number> = { '429': 0, '5xx': 0 };

export function tallyAnswer(status: number): void {
  if (status === 429) answers['429'] += 1;
  else if (status >= 500 && status <= 599) answers['5xx'] += 1;
}

/** Running totals since the process started, per class. */
export function venueAnswers(): Record<AnswerClass, number> {
  return { ...answers };
}
