import type { Knex } from 'knex';

/**
 * Virtual disks' `size` and virtual machines' `disk` are stored in MB, as NetBox 4.1 counts them
 * (the 3.7 API reads and writes GB through the `mb_to_gb` conversion): values stored in GB before
 * become a thousand times larger.
 */
export async function up(knex: Knex): Promise<void> {
  await knex('virtualization_virtualdisk').whereNotNull('size').update({ size: knex.raw('size * 1000') });
  await knex('virtualization_virtualmachine').whereNotNull('disk').update({ disk: knex.raw('disk * 1000') });
}

export async function down(knex: Knex): Promise<void> {
  await knex('virtualization_virtualdisk').whereNotNull('size').update({ size: knex.raw('round(size / 1000.0)') });
  await knex('virtualization_virtualmachine').whereNotNull('disk').update({ disk: knex.raw('round(disk / 1000.0)') });
}
