export interface CartItem {
  sku: string;
  name: string;
  unitPriceCents: number;
  quantity: number;
}

export class Cart {
  private items: CartItem[] = [];

  add(item: CartItem): void {
    const existing = this.items.find((i) => i.sku === item.sku);
    if (existing) {
      existing.quantity += item.quantity;
    } else {
      this.items.push({ ...item });
    }
  }

  remove(sku: string): void {
    this.items = this.items.filter((i) => i.sku !== sku);
  }

  lines(): readonly CartItem[] {
    return this.items;
  }

  subtotalCents(): number {
    return this.items.reduce((sum, i) => sum + i.unitPriceCents * i.quantity, 0);
  }
}
