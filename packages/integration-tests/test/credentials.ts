// The sandbox's default users as each client takes its credentials, so every test signs in the same way.
import { defaultCashoutUser, defaultFiscalUser, defaultMerchant, defaultPortalUser, SANDBOX_PASSWORD_AUTH_TYPE } from "@paysys/sandbox";

export const portalCredentials = { lgn: defaultPortalUser.lgn, psw: defaultPortalUser.psw };
export const fiscalCredentials = { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password };
export const cashoutCredentials = { authType: SANDBOX_PASSWORD_AUTH_TYPE, login: defaultCashoutUser.login, password: defaultCashoutUser.password };
export const merchant = { merchantId: defaultMerchant.login, password: defaultMerchant.password };
