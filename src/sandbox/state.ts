/**
 * The sandbox's in-memory store. Routes read and write it through the methods below; tests and
 * the admin endpoint read copies (`deals()`, `snapshot()`), so nothing outside can change it
 * behind the routes' back.
 */
import { ImportStore } from './bulk/import-store.js';
import { isoTime } from './datetime.js';
import type { Fixtures } from './fixtures.js';
import type {
  DealRecord,
  EventDefinition,
  EventOccurrence,
  PipelineRecord,
  ProductEventRecord,
  ProductRecord,
  StageRecord,
  UserRecord,
  WebpushCampaignRecord,
} from './records.js';

/** Everything the sandbox holds, as `GET /__sandbox/state` answers it. */
export interface StateSnapshot {
  readonly pipelines: PipelineRecord[];
  readonly webpushCampaigns: WebpushCampaignRecord[];
  readonly users: UserRecord[];
  readonly products: ProductRecord[];
  readonly deals: DealRecord[];
  readonly events: EventDefinition[];
  readonly eventOccurrences: EventOccurrence[];
  readonly productEvents: ProductEventRecord[];
}

const FIXED_USER_KEYS = new Set([
  'id',
  'custom_id',
  'email',
  'first_name',
  'last_name',
  'phone_number',
  'company_custom_id',
  'tags',
]);
const FIXED_PRODUCT_KEYS = new Set(['id', 'custom_id', 'name', 'price', 'category_name', 'product_url', 'image_url']);

export class SandboxState {
  private pipelineList: PipelineRecord[] = [];
  private readonly pipelinesById = new Map<number, PipelineRecord>();
  private readonly stagesById = new Map<number, StageRecord>();
  private readonly campaigns = new Map<number, WebpushCampaignRecord>();
  private readonly usersById = new Map<number, UserRecord>();
  private readonly usersByCustomId = new Map<string, UserRecord>();
  private readonly productsById = new Map<number, ProductRecord>();
  private readonly productsByCustomId = new Map<string, ProductRecord>();
  private readonly dealsById = new Map<number, DealRecord>();
  private readonly eventsByName = new Map<string, EventDefinition>();
  private eventList: EventDefinition[] = [];
  private occurrences: EventOccurrence[] = [];
  private productEventList: ProductEventRecord[] = [];
  private nextId = { user: 1, product: 1, deal: 1, event: 1, occurrence: 1, productEvent: 1 };
  /** User custom attributes that exist in the account, or undefined: any is accepted. */
  userAttributes: ReadonlySet<string> | undefined;
  /** Bulk CSV imports (`GET /import/status/`); `reset()` forgets them and stops those running. */
  readonly imports = new ImportStore();

  /**
   * @param fixtures the records to start from and to return to on `reset()`.
   * @param now the clock of `created_at`/`updated_at` (ms since the epoch).
   */
  constructor(
    private readonly fixtures: Fixtures,
    private readonly now: () => number,
  ) {
    this.reset();
  }

  /** Back to the fixtures: every created record is forgotten and ids start again. */
  reset(): void {
    const f = this.fixtures;
    const at = isoTime(this.now());
    for (const map of [
      this.pipelinesById,
      this.stagesById,
      this.campaigns,
      this.usersById,
      this.usersByCustomId,
      this.productsById,
      this.productsByCustomId,
      this.dealsById,
      this.eventsByName,
    ])
      map.clear();
    this.pipelineList = f.pipelines.map((p) => ({
      id: p.id,
      name: p.name,
      stages: p.stages.map((s) => ({ id: s.id, name: s.name })),
    }));
    for (const p of this.pipelineList) {
      this.pipelinesById.set(p.id, p);
      for (const s of p.stages) this.stagesById.set(s.id, { id: s.id, name: s.name, pipeline: p.id });
    }
    for (const c of f.webpushCampaigns) {
      this.campaigns.set(c.id, {
        id: c.id,
        name: c.name,
        category: null,
        eta: c.eta,
        ttl: c.ttl,
        segment: c.segment,
        messages: structuredClone(c.messages),
      });
    }
    this.nextId = {
      user: 1 + Math.max(0, ...f.users.map((u) => u.id ?? 0)),
      product: 1 + Math.max(0, ...f.products.map((p) => p.id ?? 0)),
      deal: 1,
      event: 1,
      occurrence: 1,
      productEvent: 1,
    };
    for (const u of f.users) {
      const attributes = Object.fromEntries(Object.entries(u).filter(([k]) => !FIXED_USER_KEYS.has(k)));
      this.putUser({
        id: u.id ?? this.nextId.user++,
        custom_id: u.custom_id,
        email: u.email ?? null,
        first_name: u.first_name ?? null,
        last_name: u.last_name ?? null,
        phone_number: u.phone_number ?? null,
        company_custom_id: u.company_custom_id ?? null,
        tags: [...(u.tags ?? [])],
        attributes: structuredClone(attributes),
        created_at: at,
        updated_at: at,
      });
    }
    for (const p of f.products) {
      const attributes = Object.fromEntries(Object.entries(p).filter(([k]) => !FIXED_PRODUCT_KEYS.has(k)));
      this.putProduct({
        id: p.id ?? this.nextId.product++,
        custom_id: p.custom_id,
        name: p.name ?? null,
        price: p.price ?? null,
        category_name: p.category_name ?? null,
        product_url: p.product_url ?? null,
        image_url: p.image_url ?? null,
        attributes: structuredClone(attributes),
        created_at: at,
      });
    }
    this.eventList = [];
    this.occurrences = [];
    this.productEventList = [];
    for (const name of f.events) this.defineEvent(name);
    this.imports.clear();
    this.userAttributes = f.userAttributes === undefined ? undefined : new Set(f.userAttributes);
  }

  // ---- reads for routes (live records: routes may change them) ----

  pipeline(id: number): PipelineRecord | undefined {
    return this.pipelinesById.get(id);
  }

  stage(id: number): StageRecord | undefined {
    return this.stagesById.get(id);
  }

  campaign(id: number): WebpushCampaignRecord | undefined {
    return this.campaigns.get(id);
  }

  user(id: number): UserRecord | undefined {
    return this.usersById.get(id);
  }

  userByCustomId(customId: string): UserRecord | undefined {
    return this.usersByCustomId.get(customId);
  }

  /** The first contact with this email (a scan: only bulk rows without a custom id ask). */
  userByEmail(email: string): UserRecord | undefined {
    for (const user of this.usersById.values()) if (user.email === email) return user;
    return undefined;
  }

  product(id: number): ProductRecord | undefined {
    return this.productsById.get(id);
  }

  productByCustomId(customId: string): ProductRecord | undefined {
    return this.productsByCustomId.get(customId);
  }

  deal(id: number): DealRecord | undefined {
    return this.dealsById.get(id);
  }

  /** The oldest deal with this custom id (`POST /deals/` may create several; update_or_create takes the first). */
  dealByCustomId(customId: string): DealRecord | undefined {
    for (const deal of this.dealsById.values()) if (deal.custom_id === customId) return deal;
    return undefined;
  }

  /** Event definitions in id order (`GET /events/`). */
  eventDefinitions(): readonly EventDefinition[] {
    return this.eventList;
  }

  // ---- writes for routes ----

  /** The current time as records carry it. */
  timestamp(): string {
    return isoTime(this.now());
  }

  newUserId(): number {
    return this.nextId.user++;
  }

  putUser(user: UserRecord): void {
    this.usersById.set(user.id, user);
    if (user.custom_id !== null) this.usersByCustomId.set(user.custom_id, user);
  }

  newProductId(): number {
    return this.nextId.product++;
  }

  putProduct(product: ProductRecord): void {
    this.productsById.set(product.id, product);
    this.productsByCustomId.set(product.custom_id, product);
  }

  newDealId(): number {
    return this.nextId.deal++;
  }

  putDeal(deal: DealRecord): void {
    this.dealsById.set(deal.id, deal);
  }

  /** The definition of `name`, created when it is new; `created` says which (docs/api-contract.md R-EVENT-1, R-EVENT-7). */
  defineEvent(name: string): { readonly event: EventDefinition; readonly created: boolean } {
    const known = this.eventsByName.get(name);
    if (known !== undefined) return { event: known, created: false };
    const event = { id: this.nextId.event++, name };
    this.eventsByName.set(name, event);
    this.eventList.push(event);
    return { event, created: true };
  }

  addOccurrence(occurrence: Omit<EventOccurrence, 'id'>): EventOccurrence {
    const record = { id: this.nextId.occurrence++, ...occurrence };
    this.occurrences.push(record);
    return record;
  }

  addProductEvent(event: Omit<ProductEventRecord, 'id'>): ProductEventRecord {
    const record = { id: this.nextId.productEvent++, ...event };
    this.productEventList.push(record);
    return record;
  }

  // ---- copies for tests and the admin endpoint ----

  /** Every deal as the API answers it, oldest first (copies). */
  deals(): DealRecord[] {
    return structuredClone([...this.dealsById.values()]);
  }

  users(): UserRecord[] {
    return structuredClone([...this.usersById.values()]);
  }

  products(): ProductRecord[] {
    return structuredClone([...this.productsById.values()]);
  }

  events(): EventDefinition[] {
    return structuredClone(this.eventList);
  }

  eventOccurrences(): EventOccurrence[] {
    return structuredClone(this.occurrences);
  }

  productEvents(): ProductEventRecord[] {
    return structuredClone(this.productEventList);
  }

  webpushCampaigns(): WebpushCampaignRecord[] {
    return structuredClone([...this.campaigns.values()]);
  }

  pipelines(): PipelineRecord[] {
    return structuredClone(this.pipelineList);
  }

  snapshot(): StateSnapshot {
    return {
      pipelines: this.pipelines(),
      webpushCampaigns: this.webpushCampaigns(),
      users: this.users(),
      products: this.products(),
      deals: this.deals(),
      events: this.events(),
      eventOccurrences: this.eventOccurrences(),
      productEvents: this.productEvents(),
    };
  }
}
