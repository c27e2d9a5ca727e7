import { Cart } from "../src/cart";
import { checkout } from "../src/checkout";

function cartWith(cents: number): Cart {
  const cart = new Cart();
  cart.add({ sku: "MUG-01", name: "Mug", unitPriceCents: cents, quantity: 1 });
  return cart;
}

describe("checkout", () => {
  it("charges shipping below the free shipping threshold", () => {
    expect(checkout(cartWith(1999), "ord_1").shippingCents).toBe(495);
  });

  it("ships for free from 50.00", () => {
    expect(checkout(cartWith(5000), "ord_2").shippingCents).toBe(0);
  });

  it("refuses an empty cart", () => {
    expect(() => checkout(new Cart(), "ord_3")).toThrow("empty cart");
  });
});
