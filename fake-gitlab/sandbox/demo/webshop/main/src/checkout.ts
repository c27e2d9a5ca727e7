import { Cart } from "./cart";

export interface Order {
  id: string;
  subtotalCents: number;
  shippingCents: number;
  totalCents: number;
}

const FREE_SHIPPING_FROM_CENTS = 5000;
const SHIPPING_CENTS = 495;

export function shippingFor(subtotalCents: number): number {
  return subtotalCents >= FREE_SHIPPING_FROM_CENTS ? 0 : SHIPPING_CENTS;
}

export function checkout(cart: Cart, orderId: string): Order {
  const subtotalCents = cart.subtotalCents();
  if (subtotalCents === 0) {
    throw new Error("cannot check out an empty cart");
  }
  const shippingCents = shippingFor(subtotalCents);
  return {
    id: orderId,
    subtotalCents,
    shippingCents,
    totalCents: subtotalCents + shippingCents,
  };
}
