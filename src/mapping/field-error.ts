/**
 * One problem with one field of one row: reported as `field: message`. A row collects all of
 * its field errors at once, so that one round of fixes is enough for a row.
 */
export interface FieldError {
  /** Target field path as the mapping names it (`data.plan`, `order_products.0.currency`). */
  readonly field: string;
  readonly message: string;
  /**
   * Other fields whose own error explains this one: "user_custom_id is required (or user_id)"
   * says nothing new when the user_id cell failed to convert, so it is dropped then.
   */
  readonly alternatives?: readonly string[];
}

/** `field: message; field: message`: the form used in the report's message column. */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}
