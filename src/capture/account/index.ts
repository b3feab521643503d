/**
 * The private streams of one account: the account socket and the portfolio stream (SSE).
 */
export { AccountCapture, PortfolioCapture, type PrivateStreamOptions } from './private-streams.ts';
