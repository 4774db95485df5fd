/** The name prefilled in the dataset panel. */
export const SAMPLE_NAME = 'Port Elsby Lantern Festival';

/**
 * The sample text prefilled in the dataset panel: a short description of a fictional town's
 * festival, written for this project (no real place or event).
 */
export const SAMPLE_TEXT = `Port Elsby is a small fishing town on the northern shore of the Grey Loch. Every year on the first Saturday of October it holds the Lantern Festival, which began in 1894 when the town's fishing fleet came home safely through a three-day storm.

During the festival, residents carry paper lanterns from the old harbour to the lighthouse on Tallow Point, a walk of about two kilometres. The lanterns are made in the town hall during the week before, and visitors may join the workshops for a fee of four pounds.

The evening ends with the Blessing of the Boats, led by the harbour master, and a supper of smoked herring and oat bread in the market square. In 2019 the festival drew a record 3,200 visitors, more than three times the town's population.`;
