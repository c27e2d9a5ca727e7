import { discountCents, findDiscount } from "../src/discounts";

describe("discounts", () => {
  it("finds codes whatever their case", () => {
    expect(findDiscount(" welcome10 ")?.percentOff).toBe(10);
  });

  it("needs the minimum subtotal", () => {
    expect(discountCents(findDiscount("SPRING25")!, 9999)).toBe(0);
  });
});
