import { accountEventSchema, type AccountEventPayload } from '../account-event.ts';
import { ACCOUNT_TOPIC, BY_ACCOUNT, declareKind } from '../kind.ts';

/** `account_event`: a frame of the account socket (src/records/account-event.ts). */
export const accountEvent = declareKind<AccountEventPayload>()({
  name: 'account_event',
  schema: accountEventSchema,
  topic: { suffix: 'account.events', ...ACCOUNT_TOPIC, key: BY_ACCOUNT },
  tables: ['account_events', 'order_observations', 'fill_observations'],
  producer: 'capture',
  from: "the account socket's frames: `account_events` always (with the frame's amounts), `order_observations` for order frames, `fill_observations` for fill frames",
});
