/**
 * The records the sandbox keeps, in the shapes the API reference gives them (deals, campaigns, event
 * definitions) or, where it says "not shown", the platform's public docs (users, products); see docs/api-contract.md.
 */

export interface UserRecord {
  readonly id: number;
  /** Null for a contact a bulk import created from an email alone. */
  readonly custom_id: string | null;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  phone_number: string | null;
  company_custom_id: string | null;
  tags: string[];
  /** Custom attributes (R-USER-2: "plus custom attributes"). */
  attributes: Record<string, unknown>;
  readonly created_at: string;
  updated_at: string;
}

export interface ProductRecord {
  readonly id: number;
  readonly custom_id: string;
  readonly name: string | null;
  readonly price: number | null;
  readonly category_name: string | null;
  readonly product_url: string | null;
  readonly image_url: string | null;
  /** Product attributes (R-PROD-1: "plus product attributes"). */
  readonly attributes: Record<string, unknown>;
  readonly created_at: string;
}

/** R-DEAL-8: order product object. */
export interface OrderProduct {
  product_id: number | null;
  product_custom_id: string | null;
  currency: string | null;
  value: string | null;
  quantity: number | null;
}

/**
 * R-DEAL-2, R-DEAL-9: the full deal record as the API answers it. `value` is a decimal string, unset
 * fields are null, lists are empty lists; custom attributes are extra keys after the fixed ones,
 * with `custom_attribute_xyz` always present (null when unset).
 */
export interface DealRecord {
  id: number;
  custom_id: string | null;
  activities_status: string | null;
  assigned_to: number | null;
  company_id: number | null;
  currency: string | null;
  expected_close_date: string | null;
  loss_reason: number | null;
  lost_at: string | null;
  name: string;
  participants: number[];
  pipeline: number | null;
  products: number[];
  products_custom_id: string[];
  stage: number | null;
  status: number;
  user_id: number | null;
  value: string;
  won_at: string | null;
  user_custom_id: string | null;
  company_custom_id: string | null;
  order_products: OrderProduct[];
  restricted_to: null;
  agent: null;
  scope: number;
  created_by: number;
  created_at: string;
  updated_at: string;
  tags: { id: number; name: string }[];
  loss_reason_description: string;
  custom_attribute_xyz: unknown;
  [customAttribute: string]: unknown;
}

/** R-EVENT-6: an event definition. */
export interface EventDefinition {
  readonly id: number;
  readonly name: string;
}

/** R-EVENT-1: one recorded occurrence. */
export interface EventOccurrence {
  readonly id: number;
  readonly event_id: number;
  readonly name: string;
  readonly user_id: number;
  readonly data: Record<string, unknown> | null;
  readonly timestamp: number | null;
  readonly created_at: string;
}

/** R-PEVT-3: one recorded product event. */
export interface ProductEventRecord {
  readonly id: number;
  readonly product_id: number;
  readonly product_custom_id: string;
  readonly user_id: number;
  readonly event_type: string;
  readonly data: Record<string, unknown>;
  readonly timestamp: number;
  readonly created_at: string;
}

/** R-PUSH-2: a webpush message. */
export interface WebpushMessage {
  title: string;
  body: string;
  url?: string | null;
  require_interaction?: boolean | null;
  doughnut_title?: string | null;
  doughnut_url?: string | null;
  coffee_title?: string | null;
  coffee_url?: string | null;
  icon?: string | null;
  badge?: string | null;
}

/** R-PUSH-1: a webpush campaign. `category` is accepted and not saved (R-PUSH-3), so always null. */
export interface WebpushCampaignRecord {
  readonly id: number;
  name: string;
  category: null;
  eta: string | null;
  ttl: number | null;
  segment: number | null;
  messages: WebpushMessage[];
}

export interface StageRecord {
  readonly id: number;
  readonly name: string;
  readonly pipeline: number;
}

export interface PipelineRecord {
  readonly id: number;
  readonly name: string;
  readonly stages: readonly { readonly id: number; readonly name: string }[];
}
