// How a shop agent was asked to change an order's address before its update_address tool was renamed set_address,
// and (worded otherwise) after: the tool-rename tests' requests, on SQLite and on PostgreSQL.
export const BEFORE = [
  (o: string) => `Change the shipping address of order ${o} to 12 Oak Street, Springfield`,
  (o: string) => `Please update the delivery address on my order ${o} to 4 Elm Road, Austin`,
  (o: string) => `I moved: the order ${o} should ship to 77 Pine Avenue, Denver`,
  (o: string) => `Set the shipping address for order ${o} to 9 Birch Lane, Portland`,
];
export const AFTER = [
  (o: string) => `My order ${o} needs to go to 31 Cedar Court, Boston instead`,
  (o: string) => `Can you fix where order ${o} is delivered? New address 5 Maple Drive, Miami`,
  (o: string) => `Update the address for delivery of order ${o} to 18 Walnut Street, Seattle`,
  (o: string) => `Ship order ${o} to 60 Spruce Way, Chicago please, I changed homes`,
];
