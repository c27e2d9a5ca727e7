import { Cart } from "../src/cart";

describe("Cart", () => {
  it("adds up the subtotal", () => {
    const cart = new Cart();
    cart.add({ sku: "MUG-01", name: "Mug", unitPriceCents: 1200, quantity: 2 });
    cart.add({ sku: "TEE-02", name: "T-shirt", unitPriceCents: 1999, quantity: 1 });
    expect(cart.subtotalCents()).toBe(4399);
  });

  it("merges lines of the same product", () => {
    const cart = new Cart();
    cart.add({ sku: "MUG-01", name: "Mug", unitPriceCents: 1200, quantity: 1 });
    cart.add({ sku: "MUG-01", name: "Mug", unitPriceCents: 1200, quantity: 1 });
    expect(cart.lines()).toHaveLength(1);
  });
});
