// axios 0.27.2 -> 1.0.0. Oracle verdicts per line in the comments.
import axios, { AxiosRequestConfig, AxiosResponse, AxiosRequestHeaders, AxiosInstance, AxiosError } from "PKG";
const cfg: AxiosRequestConfig = { url: "/x", method: "get", headers: { "X-A": "1" }, timeout: 5 };  // AxiosRequestConfig: unchanged itself
async function f() {
  const r: AxiosResponse<string> = await axios.get<string>("/x", cfg);
  const h: string = r.headers["content-type"];            // AxiosResponseHeaders: broken -> error expected
  return r.data;
}
const inst: AxiosInstance = axios.create({ baseURL: "/" });
const hd: AxiosRequestHeaders = { A: "b" };              // AxiosRequestHeaders: broken -> error expected
const status: number | undefined = (null! as AxiosError).response?.status;
