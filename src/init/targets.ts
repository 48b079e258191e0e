import type { ResourceName } from '../config/mapping-schema.js';

/**
 * What a target field holds, which steers the type guess: `text` fields stay strings whatever
 * their cells look like (a custom id `00123` must not become the number 123).
 */
export type Expect =
  | 'text'
  | 'email'
  | 'integer'
  | 'number'
  | 'decimal'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'unix'
  | 'list'
  | 'integer-list'
  | 'json'
  | 'deal-status';

export interface TargetField {
  /** The field as a mapping names it (`custom_id`, `messages.0.title`). */
  readonly target: string;
  readonly expect: Expect;
  /** The row is refused without it: written as `required: true`, and its column becomes the key. */
  readonly required?: boolean;
  /** Column names that mean this field in exports seen in the wild (compared case-, space- and accent-insensitively). */
  readonly synonyms: readonly string[];
}

/** What happens to a column that matches no target field. */
export type Leftovers =
  /** Contacts, deals, products: a custom attribute, which must exist in the account; left commented for the user to confirm. */
  | 'custom-attribute'
  /** Events and product events: custom values travel under `data`, so the column is sent as `data.<column>`. */
  | 'data'
  /** Webpush campaigns have a closed list of fields: listed only. */
  | 'none';

export interface ResourceTargets {
  readonly fields: readonly TargetField[];
  readonly leftovers: Leftovers;
}

const USER_REF = [
  'customer_id',
  'customer',
  'client_id',
  'client',
  'contact_id',
  'user_custom_id',
  'customer_number',
  'klient',
];

/**
 * The target fields of each resource, with the types docs/api-contract.md gives them, and the
 * synonyms the matcher tries after exact and case-insensitive names. The resources' own checks
 * (src/resources) stay the authority: the mapping written from these guesses is validated with them.
 */
export const TARGETS: Readonly<Record<ResourceName, ResourceTargets>> = {
  user: {
    leftovers: 'custom-attribute',
    fields: [
      {
        target: 'custom_id',
        expect: 'text',
        required: true,
        synonyms: ['customer_id', 'client_id', 'contact_id', 'external_id', 'customer_number', 'account_id', 'id'],
      },
      { target: 'email', expect: 'email', synonyms: ['e-mail', 'email_address', 'mail', 'e_mail_address'] },
      {
        target: 'first_name',
        expect: 'text',
        synonyms: ['firstname', 'given_name', 'forename', 'first', 'imie', 'vorname'],
      },
      {
        target: 'last_name',
        expect: 'text',
        synonyms: ['surname', 'lastname', 'family_name', 'last', 'nazwisko', 'nachname'],
      },
      {
        target: 'phone_number',
        expect: 'text',
        synonyms: ['phone', 'mobile', 'telephone', 'tel', 'cell', 'phone_no', 'mobile_phone', 'telefon'],
      },
      { target: 'tags', expect: 'list', synonyms: ['tag', 'labels', 'segments'] },
    ],
  },
  product: {
    leftovers: 'custom-attribute',
    fields: [
      {
        target: 'custom_id',
        expect: 'text',
        required: true,
        synonyms: ['sku', 'product_id', 'item_id', 'product_code', 'article_number', 'code', 'id'],
      },
      { target: 'name', expect: 'text', synonyms: ['title', 'product_name', 'product_title', 'nazwa'] },
      { target: 'price', expect: 'number', synonyms: ['unit_price', 'cena', 'preis'] },
      { target: 'category_name', expect: 'text', synonyms: ['category', 'kategoria'] },
      { target: 'product_url', expect: 'text', synonyms: ['url', 'link', 'product_link'] },
      { target: 'image_url', expect: 'text', synonyms: ['image', 'image_link', 'picture', 'photo', 'img'] },
    ],
  },
  deal: {
    leftovers: 'custom-attribute',
    fields: [
      {
        target: 'custom_id',
        expect: 'text',
        required: true,
        synonyms: ['deal_ref', 'deal_id', 'deal_number', 'reference', 'offer_number', 'nr_oferty', 'order_id'],
      },
      { target: 'name', expect: 'text', synonyms: ['deal_name', 'title', 'subject', 'nazwa'] },
      { target: 'user_custom_id', expect: 'text', synonyms: USER_REF },
      { target: 'company_custom_id', expect: 'text', synonyms: ['company', 'company_id', 'account'] },
      { target: 'value', expect: 'number', synonyms: ['amount', 'total', 'deal_value', 'revenue', 'wartosc'] },
      { target: 'currency', expect: 'text', synonyms: ['currency_code', 'curr', 'waluta'] },
      { target: 'status', expect: 'deal-status', synonyms: ['deal_status', 'state'] },
      { target: 'pipeline', expect: 'integer', synonyms: ['pipeline_id', 'lejek'] },
      { target: 'stage', expect: 'integer', synonyms: ['stage_id', 'etap'] },
      { target: 'products_custom_id', expect: 'list', synonyms: ['products', 'skus', 'product_skus', 'produkty'] },
      {
        target: 'expected_close_date',
        expect: 'date',
        synonyms: ['expected_close', 'close_date', 'closing_date', 'data_zamkniecia'],
      },
      { target: 'won_at', expect: 'datetime', synonyms: ['won_date', 'date_won'] },
      { target: 'lost_at', expect: 'datetime', synonyms: ['lost_date', 'date_lost'] },
    ],
  },
  event: {
    leftovers: 'data',
    fields: [
      { target: 'user_custom_id', expect: 'text', required: true, synonyms: USER_REF },
      { target: 'name', expect: 'text', required: true, synonyms: ['event', 'event_name', 'event_type', 'action'] },
      {
        target: 'timestamp',
        expect: 'unix',
        synonyms: ['occurred_at', 'time', 'date', 'datetime', 'created_at', 'event_time', 'ts'],
      },
    ],
  },
  'product-event': {
    leftovers: 'data',
    fields: [
      {
        target: 'custom_id',
        expect: 'text',
        required: true,
        synonyms: ['sku', 'product_id', 'product', 'item_id', 'product_code'],
      },
      { target: 'user_custom_id', expect: 'text', required: true, synonyms: USER_REF },
      {
        target: 'event_type',
        expect: 'text',
        required: true,
        synonyms: ['action', 'event', 'interaction', 'type', 'event_name'],
      },
      {
        target: 'timestamp',
        expect: 'unix',
        required: true,
        synonyms: ['occurred_at', 'time', 'date', 'datetime', 'created_at', 'event_time', 'ts'],
      },
      // docs/api-contract.md R-PEVT-3: a client-defined JSON object, unique per occurrence.
      { target: 'data.custom_data', expect: 'json', synonyms: ['custom_data', 'custom'] },
    ],
  },
  'webpush-campaign': {
    leftovers: 'none',
    fields: [
      { target: 'id', expect: 'integer', required: true, synonyms: ['campaign_id', 'campaign'] },
      { target: 'name', expect: 'text', synonyms: ['campaign_name'] },
      { target: 'ttl', expect: 'integer', synonyms: ['ttl_seconds', 'time_to_live'] },
      { target: 'eta', expect: 'datetime', synonyms: ['send_at', 'scheduled_at', 'send_time'] },
      { target: 'segment', expect: 'integer', synonyms: ['segment_id'] },
      { target: 'messages.0.title', expect: 'text', synonyms: ['title', 'message_title', 'headline'] },
      { target: 'messages.0.body', expect: 'text', synonyms: ['body', 'message', 'text', 'message_body'] },
      { target: 'messages.0.url', expect: 'text', synonyms: ['url', 'link'] },
      { target: 'messages.0.require_interaction', expect: 'boolean', synonyms: ['require_interaction'] },
      { target: 'messages.0.icon', expect: 'text', synonyms: ['icon'] },
    ],
  },
};
