fn main() {
    clusterscope_web::start();
}
