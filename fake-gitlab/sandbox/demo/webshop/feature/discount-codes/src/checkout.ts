import { Cart } from "./cart";
import { discountCents, findDiscount } from "./discounts";

export interface Order {
  id: string;
  subtotalCents: number;
  discountCents: number;
  shippingCents: number;
  totalCents: number;
}

const FREE_SHIPPING_FROM_CENTS = 5000;
const SHIPPING_CENTS = 495;

export function shippingFor(subtotalCents: number): number {
  return subtotalCents >= FREE_SHIPPING_FROM_CENTS ? 0 : SHIPPING_CENTS;
}

export function checkout(cart: Cart, orderId: string, discountCode?: string): Order {
  const subtotalCents = cart.subtotalCents();
  if (subtotalCents === 0) {
    throw new Error("cannot check out an empty cart");
  }
  const discount = discountCode ? findDiscount(discountCode) : undefined;
  if (discountCode && !discount) {
    throw new Error(`unknown discount code: ${discountCode}`);
  }
  const off = discount ? discountCents(discount, subtotalCents) : 0;
  const shippingCents = shippingFor(subtotalCents);
  return {
    id: orderId,
    subtotalCents,
    discountCents: off,
    shippingCents,
    totalCents: subtotalCents - off + shippingCents,
  };
}
