export interface Discount {
  code: string;
  percentOff: number;
  minimumSubtotalCents: number;
}

const DISCOUNTS: Discount[] = [
  { code: "WELCOME10", percentOff: 10, minimumSubtotalCents: 0 },
  { code: "SPRING25", percentOff: 25, minimumSubtotalCents: 10000 },
];

export function findDiscount(code: string): Discount | undefined {
  return DISCOUNTS.find((d) => d.code === code);
}

export function discountCents(discount: Discount, subtotalCents: number): number {
  if (subtotalCents < discount.minimumSubtotalCents) {
    return 0;
  }
  return Math.round((subtotalCents * discount.percentOff) / 100);
}
