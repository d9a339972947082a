import type { Knex } from 'knex';

/**
 * Tag assignments name the tagged object's type `object_type`, as every generic relation of the
 * schema names its type half, so that the TaggedItem model (schema/extras/tagged-item.yaml) reads
 * the table as it reads any other.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE extras_taggeditem RENAME COLUMN content_type TO object_type');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE extras_taggeditem RENAME COLUMN object_type TO content_type');
}
