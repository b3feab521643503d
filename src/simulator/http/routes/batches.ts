import { isoTime } from '../../clock.ts';
import type { AccountBatch, BatchOp, SimWithdrawal } from '../../engine/batches.ts';
import { Rejection, validationFailed, type FieldError } from '../../problems.ts';
import { BodyReader } from '../body-reader.ts';
import { requireAccount, type RequestContext, type Reply, type RouteSpec } from '../context.ts';

const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : isoTime(ms));

export function renderBatch(batch: AccountBatch): Record<string, unknown> {
  return {
    batch_hash: batch.hash,
    seq: batch.seq,
    status: batch.status,
    origin: batch.origin,
    created_at: isoTime(batch.createdAtMs),
    executed_at: iso(batch.executedAtMs),
    deadline_unix_seconds: batch.deadlineUnixSeconds,
    tx_hash: batch.txHash,
    superseded_by_batch_hash: batch.supersededByHash,
    failure: batch.failure,
    withdrawal: batch.withdrawal && renderWithdrawal(batch.withdrawal),
    ops: batch.ops.map((op) =>
      op.kind === 'WITHDRAW'
        ? { kind: op.kind, amount_micro: Number(op.sharesMicro), chain_id: op.chainId }
        : { kind: op.kind, condition_id: op.conditionId, market_id: op.marketId, shares_micro: Number(op.sharesMicro) },
    ),
  };
}

function renderWithdrawal(w: SimWithdrawal): Record<string, unknown> {
  return {
    state: w.state,
    updated_at: isoTime(w.updatedAtMs),
    source: {
      chain_id: w.chainId,
      status: w.sourceStatus,
      tx_hash: w.sourceTxHash,
      confirmed_at: iso(w.confirmedAtMs),
    },
    destination: {
      chain_id: w.chainId,
      status: w.destinationStatus,
      path: 'SPOKE_POOL',
      tx: w.destinationTx,
      delivered_at: iso(w.deliveredAtMs),
    },
  };
}

/** `{deadline_unix_seconds, ops[], signature}` with SPLIT or MERGE ops of whole lots. */
function readSignedBatch(ctx: RequestContext): { ops: BatchOp[]; deadline: number; signature: string } {
  const body = new BodyReader(ctx.body);
  const deadline = body.int('deadline_unix_seconds', { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 });
  const signature = body.string('signature');
  const rawOps = body.raw('ops');
  body.done();
  const errors: FieldError[] = [];
  if (!signature) errors.push({ path: ['signature'], code: 'required', message: 'signature is required.' });
  if (deadline * 1000 <= ctx.nowMs)
    errors.push({
      path: ['deadline_unix_seconds'],
      code: 'in_the_past',
      message: 'The deadline must be in the future.',
    });
  if (!Array.isArray(rawOps) || rawOps.length === 0)
    errors.push({ path: ['ops'], code: 'required', message: 'ops must be a non-empty array.' });
  const ops: BatchOp[] = [];
  (Array.isArray(rawOps) ? rawOps : []).forEach((raw: unknown, i) => {
    const op = (raw ?? {}) as Record<string, unknown>;
    if (op.kind === 'WITHDRAW') {
      // A same-chain withdrawal (§1.5); its op fields are not shown: ours are amount_micro and chain_id.
      const amount = op.amount_micro;
      if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0)
        errors.push({
          path: ['ops', i, 'amount_micro'],
          code: 'invalid',
          message: 'amount_micro must be a positive integer.',
        });
      if (typeof op.chain_id !== 'number' || !Number.isSafeInteger(op.chain_id))
        errors.push({ path: ['ops', i, 'chain_id'], code: 'invalid', message: 'chain_id must be an integer.' });
      if (errors.length === 0)
        ops.push({
          kind: 'WITHDRAW',
          conditionId: '',
          marketId: '',
          sharesMicro: BigInt(amount as number),
          chainId: op.chain_id as number,
        });
      return;
    }
    const market =
      typeof op.condition_id === 'string' ? ctx.venue.catalogue.marketByCondition(op.condition_id) : undefined;
    const shares = op.shares_micro;
    if (op.kind !== 'SPLIT' && op.kind !== 'MERGE')
      errors.push({
        path: ['ops', i, 'kind'],
        code: 'invalid_enum',
        message: 'kind must be SPLIT, MERGE or WITHDRAW.',
      });
    if (!market || market.id !== op.market_id)
      errors.push({
        path: ['ops', i, 'condition_id'],
        code: 'unknown_market',
        message: 'condition_id and market_id must name one market.',
      });
    if (typeof shares !== 'number' || !Number.isSafeInteger(shares) || shares <= 0 || shares % 10_000 !== 0) {
      errors.push({
        path: ['ops', i, 'shares_micro'],
        code: 'not_on_lot',
        message: 'shares_micro must be a positive integer multiple of 10000.',
      });
    }
    if (errors.length === 0 && market)
      ops.push({
        kind: op.kind as BatchOp['kind'],
        conditionId: market.conditionId,
        marketId: market.id,
        sharesMicro: BigInt(shares as number),
      });
  });
  if (errors.length > 0) throw validationFailed(errors);
  return { ops, deadline, signature: signature ?? '' };
}

function submitBatch(ctx: RequestContext): Reply {
  const { ops, deadline, signature } = readSignedBatch(ctx);
  const batch = ctx.venue.batches.submit(requireAccount(ctx), ops, deadline, signature, ctx.nowMs);
  return { status: 201, body: { batch: renderBatch(batch) } };
}

function getBatch(ctx: RequestContext): Reply {
  const batch = ctx.venue.batches.get(ctx.params.batch_hash ?? '');
  if (!batch || batch.accountId !== requireAccount(ctx).id)
    throw new Rejection('batch_not_found', `No batch ${ctx.params.batch_hash}.`);
  return { status: 200, body: renderBatch(batch) };
}

function supersedeBatch(ctx: RequestContext): Reply {
  const { ops, deadline, signature } = readSignedBatch(ctx);
  const replacement = ctx.venue.batches.supersede(
    requireAccount(ctx),
    ctx.params.batch_hash ?? '',
    ops,
    deadline,
    signature,
    ctx.nowMs,
  );
  return { status: 200, body: { batch: renderBatch(replacement), outcome: 'SUPERSEDED' } };
}

export const batchRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/trade/v1/batches',
    auth: 'pat',
    scope: 'batches:submit',
    action: 'place_batch',
    ipAction: true,
    body: 'json',
    feature: 'account_batches',
    handler: submitBatch,
  },
  {
    method: 'GET',
    path: '/trade/v1/batches/:batch_hash',
    auth: 'pat',
    scope: 'portfolio:read',
    feature: 'account_batches',
    handler: getBatch,
  },
  {
    method: 'POST',
    path: '/trade/v1/batches/:batch_hash/supersede',
    auth: 'pat',
    scope: 'batches:submit',
    action: 'place_batch',
    ipAction: true,
    body: 'json',
    feature: 'account_batches',
    handler: supersedeBatch,
  },
];
