import { z } from 'zod';

/** A job file: the mapping files of one migration, in any order (the tool orders them). */
export const JobFileSchema = z.strictObject({
  $schema: z.string().optional(),
  /** Mapping file paths, relative to the job file. */
  mappings: z.array(z.string().min(1)).min(1),
  /** `incremental`: every run of this job sends only new and changed rows, as `--incremental` does. */
  sync: z.enum(['incremental']).optional(),
});
