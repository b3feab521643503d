/** Book sides as the warehouse writes them: BID and ASK (other values are kept, upper-cased). */
export function bookSide(value: string): string {
  switch (value) {
    case 'bid':
    case 'bids':
    case 'BID':
    case 'buy':
    case 'BUY':
      return 'BID';
    case 'ask':
    case 'asks':
    case 'ASK':
    case 'sell':
    case 'SELL':
      return 'ASK';
    default:
      return value.toUpperCase();
  }
}
