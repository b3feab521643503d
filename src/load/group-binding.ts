import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { SettingError } from '../util/setting-error.ts';
import type { Warehouse } from '../warehouse/warehouse.ts';

/**
 * A loader group belongs to one warehouse. Each loader reads where its partitions stand from the
 * warehouse it writes, so two loaders of one group on two warehouses would split the group's data
 * between them, each loading its share from offset 0 (issue 38). Both sides record the binding:
 * the warehouse keeps its id (`warehouse_identity`) and the groups it serves (`loader_groups`, with
 * their topic prefix); the group's first claim on the bus's register names its warehouse. A
 * loader whose warehouse or prefix differs from the group's refuses to start (exit 2).
 */

/** The bus's first-claim-wins register (Kafka: src/bus/kafka/claims.ts). */
/** The group of a prefix's loaders when none is named: one per deployment on a shared Kafka (the binding is per group). */
export function defaultLoaderGroup(topicPrefix: string): string {
  return `${topicPrefix}-loaders`;
}

export interface ClaimRegister {
  claim(key: string, value: string): Promise<{ value: string }>;
}

export interface BindingRequest {
  claims: ClaimRegister;
  warehouse: Warehouse;
  group: string;
  topicPrefix: string;
  /** How an operator finds the warehouse (`chDB on /srv/data`, `ClickHouse at http://ch:8123`). */
  warehouseName: string;
  loaderId: string;
}

/** What a group's claim records. */
interface GroupClaim {
  warehouse_id: string;
  warehouse: string;
  topic_prefix: string;
  host: string;
  claimed_at: string;
}

export interface GroupBinding {
  warehouseId: string;
  /** This start made the claim (the group's first loader). */
  claimedNow: boolean;
}

/** A refused binding: a usage error (exit 2), the message naming both sides. */
export class GroupBindingError extends SettingError {
  constructor(message: string) {
    super(message);
    this.name = 'GroupBindingError';
  }
}

export async function bindGroupToWarehouse(request: BindingRequest): Promise<GroupBinding> {
  const { group, topicPrefix, warehouseName } = request;
  const warehouseId = await warehouseIdentity(request.warehouse);
  const servedPrefix = await prefixServed(request.warehouse, group);
  if (servedPrefix !== undefined && servedPrefix !== topicPrefix)
    throw new GroupBindingError(
      `loader group ${group} loads topics prefixed ${servedPrefix} into this warehouse (${warehouseName}, id ${warehouseId}); ` +
        `this loader reads prefix ${topicPrefix}: give it its own --group (TAPEHOUSE_LOADER_GROUP) or the group's --topic-prefix`,
    );
  const ours: GroupClaim = {
    warehouse_id: warehouseId,
    warehouse: warehouseName,
    topic_prefix: topicPrefix,
    host: hostname(),
    claimed_at: new Date().toISOString(),
  };
  const held = parseClaim((await request.claims.claim(`loader-group/${group}`, JSON.stringify(ours))).value);
  if (held.warehouse_id !== warehouseId)
    throw new GroupBindingError(
      `loader group ${group} belongs to warehouse ${held.warehouse} (id ${held.warehouse_id}, bound ${held.claimed_at} from ${held.host}); ` +
        `this loader writes warehouse ${warehouseName} (id ${warehouseId}): start it on the group's warehouse, ` +
        `or give it a group of its own (--group, TAPEHOUSE_LOADER_GROUP)`,
    );
  if (held.topic_prefix !== topicPrefix)
    throw new GroupBindingError(
      `loader group ${group} reads topics prefixed ${held.topic_prefix} (bound ${held.claimed_at} from ${held.host}); ` +
        `this loader reads prefix ${topicPrefix}: give it its own --group (TAPEHOUSE_LOADER_GROUP) or the group's --topic-prefix`,
    );
  await request.warehouse.insertRows('loader_groups', [
    { consumer_group: group, topic_prefix: topicPrefix, warehouse_id: warehouseId, loader_id: request.loaderId },
  ]);
  return { warehouseId, claimedNow: held.claimed_at === ours.claimed_at && held.host === ours.host };
}

/** The warehouse's id: its earliest `warehouse_identity` row, made now if it has none. */
export async function warehouseIdentity(warehouse: Warehouse): Promise<string> {
  const found = await earliestIdentity(warehouse);
  if (found !== undefined) return found;
  await warehouse.insertRows('warehouse_identity', [{ warehouse_id: randomUUID() }]);
  // Two loaders starting at once on a fresh warehouse each wrote one: both take the earliest.
  const made = await earliestIdentity(warehouse);
  if (made === undefined) throw new Error('the warehouse identity was written but cannot be read back');
  return made;
}

async function earliestIdentity(warehouse: Warehouse): Promise<string | undefined> {
  const result = await warehouse.client.query({
    query: 'SELECT warehouse_id FROM tapehouse.warehouse_identity ORDER BY created_at, warehouse_id LIMIT 1',
    format: 'JSONEachRow',
  });
  return (await result.json<{ warehouse_id: string }>())[0]?.warehouse_id;
}

async function prefixServed(warehouse: Warehouse, group: string): Promise<string | undefined> {
  const result = await warehouse.client.query({
    query: `SELECT topic_prefix FROM tapehouse.loader_groups WHERE consumer_group = {group:String}
            ORDER BY recorded_at LIMIT 1`,
    query_params: { group },
    format: 'JSONEachRow',
  });
  return (await result.json<{ topic_prefix: string }>())[0]?.topic_prefix;
}

function parseClaim(text: string): GroupClaim {
  const value = JSON.parse(text) as Partial<GroupClaim>;
  if (typeof value.warehouse_id !== 'string' || typeof value.topic_prefix !== 'string')
    throw new Error(`the loader group's claim on the bus is not one tapehouse wrote: ${text.slice(0, 200)}`);
  return {
    warehouse_id: value.warehouse_id,
    warehouse: value.warehouse ?? '(unnamed)',
    topic_prefix: value.topic_prefix,
    host: value.host ?? '(unknown host)',
    claimed_at: value.claimed_at ?? '(unknown time)',
  };
}
