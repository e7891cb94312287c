"""Protobuf <-> domain: conversion, the error table (status + ErrorInfo), receipts on the wire."""
