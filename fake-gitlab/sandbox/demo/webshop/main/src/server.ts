import express from "express";
import { Cart } from "./cart";
import { checkout } from "./checkout";

const app = express();
app.use(express.json());

const carts = new Map<string, Cart>();

app.post("/carts/:id/items", (req, res) => {
  const cart = carts.get(req.params.id) ?? new Cart();
  cart.add(req.body);
  carts.set(req.params.id, cart);
  res.status(201).json({ subtotalCents: cart.subtotalCents() });
});

app.post("/carts/:id/checkout", (req, res) => {
  const cart = carts.get(req.params.id);
  if (!cart) {
    res.status(404).json({ error: "cart not found" });
    return;
  }
  res.json(checkout(cart, `ord_${Date.now()}`));
});

app.listen(3000, () => console.log("webshop listening on :3000"));
