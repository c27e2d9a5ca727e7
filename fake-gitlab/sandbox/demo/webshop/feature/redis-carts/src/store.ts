import { createClient } from "redis";
import { Cart } from "./cart";

const client = createClient({ url: process.env.REDIS_URL });

export async function loadCart(id: string): Promise<Cart> {
  const raw = await client.get(`cart:${id}`);
  const cart = new Cart();
  for (const item of raw ? JSON.parse(raw) : []) {
    cart.add(item);
  }
  return cart;
}

export async function saveCart(id: string, cart: Cart): Promise<void> {
  await client.set(`cart:${id}`, JSON.stringify(cart.lines()), { EX: 86400 });
}
