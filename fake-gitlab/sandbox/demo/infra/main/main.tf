terraform {
  required_version = ">= 1.9"
}

module "webshop" {
  source   = "./modules/app"
  replicas = 3
}
